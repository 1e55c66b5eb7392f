/* SPDX-License-Identifier: MIT */
/* iocurve compare --fail-if: each gate's verdict on each workload of each later run. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"

/* A gate's verdict on one workload of one run against the base. */
struct compare_verdict {
	bool breach;
	const char *word; /* "breach", "pass", "within noise", "spread unknown", "n/a" */
	char msg[512];
};

/*
 * Whether run r breaches gate g on workload name: the change passes the threshold
 * and the bands say it is not noise (knee: curve_compare_noise; latency: the two
 * steps' 95% intervals of the SLO metric do not overlap). Peak and sustained have
 * no band: the threshold alone decides, said so.
 */
static struct compare_verdict compare_gate_one(const struct cmpgate *g, struct compare_run *runs,
                                               size_t r, const char *name)
{
	struct compare_verdict v = {.word = "pass"};
	char fn[48];
	double a = 0, b = 0, alo = 0, ahi = 0, blo = 0, bhi = 0;
	bool has_a = false, has_b = false, bands = false, sure = true;
	enum curve_noise noise = CURVE_NOISE_UNKNOWN;
	const char *unit = "";

	cmpgate_figure_name(g, fn, sizeof(fn));
	if (g->figure == CMPGATE_LATENCY) {
		const struct step_point *p = compare_at_rate(&runs[0], name, g->rate),
		                        *q = compare_at_rate(&runs[r], name, g->rate);
		enum slo_metric m = runs[0].rp.campaign->slo_metric;

		unit = " us";
		if (p != NULL) {
			has_a = true;
			a = step_metric(p, m) / 1e3;
			alo = p->metric_lo_ns / 1e3;
			ahi = p->metric_hi_ns / 1e3;
		}
		if (q != NULL) {
			has_b = true;
			b = step_metric(q, m) / 1e3;
			blo = q->metric_lo_ns / 1e3;
			bhi = q->metric_hi_ns / 1e3;
		}
		bands = has_a && has_b && ahi > 0 && bhi > 0;
		if (bands)
			noise = ahi < blo || bhi < alo ? CURVE_NOISE_BEYOND : CURVE_NOISE_WITHIN;
	} else {
		struct compare_fig f0 = compare_figures(&runs[0], name),
		                   f1 = compare_figures(&runs[r], name);

		if (!f1.present) {
			v.word = "n/a";
			snprintf(v.msg, sizeof(v.msg), "%s: not in %s", name, runs[r].dir);
			return v;
		}
		if (g->figure == CMPGATE_KNEE) {
			has_a = f0.bound >= 0;
			has_b = f1.bound >= 0;
			a = f0.knee;
			b = f1.knee;
			if (f0.bound > 0 && f1.bound > 0) {
				v.word = "n/a";
				snprintf(v.msg, sizeof(v.msg),
				         "%s: knee n/a: both are lower bounds", name);
				return v;
			}
			/* a lower bound: the change is only sure in the bound's direction */
			if (f0.bound > 0)
				sure = g->below;
			else if (f1.bound > 0)
				sure = !g->below;
			if (f0.band && f1.band) {
				bands = true;
				alo = f0.lo, ahi = f0.hi, blo = f1.lo, bhi = f1.hi;
				noise = curve_compare_noise(f0.k, &f0.r, f1.k, &f1.r);
			}
		} else if (g->figure == CMPGATE_PEAK) {
			has_a = f0.has_peak, has_b = f1.has_peak, a = f0.peak, b = f1.peak;
		} else if (g->figure == CMPGATE_STORM) {
			if (!f0.storm_run) {
				v.word = "n/a";
				snprintf(v.msg, sizeof(v.msg), "%s: storm n/a: not fixed work",
				         name);
				return v;
			}
			unit = " s";
			has_a = f0.has_storm, has_b = f1.has_storm, a = f0.storm_s, b = f1.storm_s;
		} else {
			has_a = f0.has_sus, has_b = f1.has_sus, a = f0.sus, b = f1.sus;
		}
	}
	if (!has_a) {
		v.word = "n/a";
		snprintf(v.msg, sizeof(v.msg), "%s: %s n/a: %s has none", name, fn, runs[0].dir);
		return v;
	}
	if (!has_b) {
		/*
		 * a figure that vanished is a fall of 100%: a breach of a '<' gate; a
		 * storm whose workers did not all finish is endless: any '>' gate's
		 */
		v.breach =
		    g->figure == CMPGATE_STORM ? !g->below : g->below && cmpgate_past(g, -100.0);
		v.word = v.breach ? "breach" : "n/a";
		if (g->figure == CMPGATE_STORM)
			snprintf(v.msg, sizeof(v.msg), "%s: storm %.3f s -> unfinished in %s", name,
			         a, runs[r].dir);
		else
			snprintf(v.msg, sizeof(v.msg), "%s: %s %s -> none in %s", name, fn,
			         compare_num(a).s, runs[r].dir);
		return v;
	}
	{
		double pct = compare_pct(a, b);
		struct compare_text ta = compare_num(a), tb = compare_num(b);
		int k;

		/* a storm in milliseconds: its seconds to three places */
		if (g->figure == CMPGATE_STORM) {
			snprintf(ta.s, sizeof(ta.s), "%.3f", a);
			snprintf(tb.s, sizeof(tb.s), "%.3f", b);
		}
		k = snprintf(v.msg, sizeof(v.msg), "%s: %s %+.1f%% (%s%s -> %s%s)", name, fn, pct,
		             ta.s, unit, tb.s, unit);
		size_t off = k > 0 ? (size_t)k : 0;
		char ba[200], bb[200];

		if (!isfinite(pct) || !cmpgate_past(g, pct) || !sure) {
			snprintf(v.msg + off, sizeof(v.msg) - off, ", %s",
			         sure ? "within the threshold"
			              : "a lower bound: not sure to pass it");
			return v;
		}
		snprintf(ba, sizeof(ba), "%s-%s", compare_num(alo).s, compare_num(ahi).s);
		snprintf(bb, sizeof(bb), "%s-%s", compare_num(blo).s, compare_num(bhi).s);
		if (g->figure == CMPGATE_PEAK || g->figure == CMPGATE_SUSTAINED ||
		    g->figure == CMPGATE_STORM) {
			v.breach = true;
			v.word = "breach";
			snprintf(
			    v.msg + off, sizeof(v.msg) - off,
			    ", past the threshold (a %s has no band: the threshold alone decides)",
			    fn);
		} else if (noise == CURVE_NOISE_BEYOND) {
			v.breach = true;
			v.word = "breach";
			snprintf(v.msg + off, sizeof(v.msg) - off,
			         ", beyond noise: bands %s and %s do not overlap", ba, bb);
		} else if (noise == CURVE_NOISE_WITHIN) {
			v.word = "within noise";
			snprintf(v.msg + off, sizeof(v.msg) - off,
			         ", past the threshold but within noise: bands %s and %s overlap",
			         ba, bb);
		} else {
			v.word = "spread unknown";
			snprintf(
			    v.msg + off, sizeof(v.msg) - off,
			    ", past the threshold but the spread is unknown (%s): not a breach",
			    bands ? "no band" : "a figure without a band");
		}
	}
	return v;
}

/* Every gate on every workload of every later run; the number of breaches. */
size_t compare_gates(const struct cmpgate *gates, size_t ngates, struct compare_run *runs,
                     size_t nruns, json_t *jgate, bool text)
{
	const struct campaign *c0 = runs[0].rp.campaign;
	size_t breaches = 0;

	for (size_t g = 0; g < ngates; g++)
		for (size_t r = 1; r < nruns; r++)
			for (size_t w = 0; w < c0->nworkloads; w++) {
				struct compare_verdict v =
				    compare_gate_one(&gates[g], runs, r, c0->workloads[w].name);

				breaches += v.breach;
				if (text || v.breach)
					fprintf(text ? stdout : stderr,
					        "fail-if '%s': %s%s: %s: %s\n", gates[g].text,
					        v.breach ? "BREACH " : "", runs[r].dir, v.word,
					        v.msg);
				json_array_append_new(
				    jgate, json_pack("{s:s,s:s,s:s,s:s,s:b,s:s}", "expression",
				                     gates[g].text, "run", runs[r].dir, "workload",
				                     c0->workloads[w].name, "verdict", v.word,
				                     "breach", (int)v.breach, "message", v.msg));
			}
	return breaches;
}
