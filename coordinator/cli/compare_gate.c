/* SPDX-License-Identifier: MIT */
/* iocurve compare --fail-if: each gate's verdict on each workload of each later run. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"

/* A gate's verdict on one workload of one run against the base. */
struct compare_verdict {
	enum cmpgate_verdict verdict;
	const char *word; /* "breach", "pass", "within noise", "undecided", "n/a" */
	double pct;       /* the change at the estimates (NaN: none) */
	int dir;          /* cmpgate_decision's: -1 at most pct, 1 at least, 2 unknown */
	char msg[512];
};

struct compare_gate_text {
	char s[128];
};

/* "8,000", "> 8,000" (a lower bound), a storm's seconds to three places, with the unit. */
static struct compare_gate_text compare_gate_num(const struct cmpgate *g,
                                                 const struct cmpgate_fig *f, const char *unit)
{
	struct compare_gate_text t;

	if (g->figure == CMPGATE_STORM)
		snprintf(t.s, sizeof(t.s), "%.3f%s", f->v, unit);
	else
		snprintf(t.s, sizeof(t.s), "%s%s%s",
		         f->bound > 0   ? "> "
		         : f->bound < 0 ? "< "
		                        : "",
		         compare_num(f->v).s, unit);
	return t;
}

/*
 * verify: a later run that read a block whose header did not hold breaches every gate,
 * whatever its figures: a faster release that corrupts data must not pass.
 */
static bool compare_gate_mismatch(struct compare_run *runs, size_t r, const char *name,
                                  struct compare_verdict *v)
{
	ssize_t w = compare_find(runs[r].rp.campaign, name);
	const struct judged_curve *j;
	const struct step_point *first = NULL;
	uint64_t n = 0;

	if (w < 0)
		return false;
	j = &runs[r].rp.judged[w];
	for (size_t i = 0; i < j->n; i++) {
		n += j->sorted[i].mismatches;
		if (first == NULL && record_err_names_path(j->sorted[i].err_cause))
			first = &j->sorted[i];
	}
	if (n == 0)
		return false;
	v->verdict = CMPGATE_BREACH;
	v->word = "breach";
	snprintf(v->msg, sizeof(v->msg), "%s: %llu data mismatches in %s%s%s", name,
	         (unsigned long long)n, runs[r].dir, first ? ", the first " : "",
	         first ? first->err_cause : "");
	return true;
}

/*
 * Whether run r breaches gate g on workload name (cmpgate_decide): the change at the
 * estimates against the threshold, a lower bound taken the way it is sure; with
 * "beyond noise" the two 95% intervals apart too (knee: the band joined with the
 * repeats' interval, curve_knee_interval; latency: the steps' intervals of the SLO
 * metric). A figure the base lacks is n/a; one the later run lacks a fall of 100%.
 */
static struct compare_verdict compare_gate_one(const struct cmpgate *g, struct compare_run *runs,
                                               size_t r, const char *name)
{
	struct compare_verdict v = {.verdict = CMPGATE_PASS, .word = "n/a", .pct = NAN};
	struct cmpgate_fig a = {0}, b = {0};
	struct cmpgate_decision d;
	char fn[48];
	bool has_a = false, has_b = false;
	const char *unit = "";

	if (compare_gate_mismatch(runs, r, name, &v))
		return v;
	cmpgate_figure_name(g, fn, sizeof(fn));
	if (g->figure == CMPGATE_LATENCY) {
		const struct step_point *p = compare_at_rate(&runs[0], name, g->rate),
		                        *q = compare_at_rate(&runs[r], name, g->rate);
		enum slo_metric m = runs[0].rp.campaign->slo_metric;

		unit = " us";
		if (p != NULL) {
			has_a = true;
			a.v = step_metric(p, m) / 1e3;
			a.lo = p->metric_lo_ns / 1e3;
			a.hi = p->metric_hi_ns / 1e3;
			a.band = a.hi > 0;
		}
		if (q != NULL) {
			has_b = true;
			b.v = step_metric(q, m) / 1e3;
			b.lo = q->metric_lo_ns / 1e3;
			b.hi = q->metric_hi_ns / 1e3;
			b.band = b.hi > 0;
		}
	} else {
		struct compare_fig f0 = compare_figures(&runs[0], name),
		                   f1 = compare_figures(&runs[r], name);

		if (!f1.present) {
			snprintf(v.msg, sizeof(v.msg), "%s: not in %s", name, runs[r].dir);
			return v;
		}
		if (g->figure == CMPGATE_KNEE) {
			has_a = f0.bound >= 0, has_b = f1.bound >= 0;
			a = (struct cmpgate_fig){f0.knee, f0.bound > 0, f0.band, f0.lo, f0.hi};
			b = (struct cmpgate_fig){f1.knee, f1.bound > 0, f1.band, f1.lo, f1.hi};
		} else if (g->figure == CMPGATE_PEAK) {
			has_a = f0.has_peak, has_b = f1.has_peak, a.v = f0.peak, b.v = f1.peak;
		} else if (g->figure == CMPGATE_STORM) {
			if (!f0.storm_run) {
				snprintf(v.msg, sizeof(v.msg), "%s: storm n/a: not fixed work",
				         name);
				return v;
			}
			unit = " s";
			has_a = f0.has_storm, has_b = f1.has_storm, a.v = f0.storm_s,
			b.v = f1.storm_s;
		} else {
			has_a = f0.has_sus, has_b = f1.has_sus, a.v = f0.sus, b.v = f1.sus;
		}
	}
	if (!has_a) {
		snprintf(v.msg, sizeof(v.msg), "%s: %s n/a: %s has none", name, fn, runs[0].dir);
		return v;
	}
	if (!has_b) {
		/*
		 * a figure that vanished is a fall of 100%: a breach of a '<' gate; a
		 * storm whose workers did not all finish is endless: any '>' gate's
		 */
		bool breach =
		    g->figure == CMPGATE_STORM ? !g->below : g->below && cmpgate_past(g, -100.0);

		v.verdict = breach ? CMPGATE_BREACH : CMPGATE_PASS;
		v.word = breach ? "breach" : "n/a";
		if (g->figure == CMPGATE_STORM)
			snprintf(v.msg, sizeof(v.msg), "%s: storm %.3f s -> unfinished in %s", name,
			         a.v, runs[r].dir);
		else
			snprintf(v.msg, sizeof(v.msg), "%s: %s %s -> none in %s", name, fn,
			         compare_gate_num(g, &a, unit).s, runs[r].dir);
		return v;
	}
	d = cmpgate_decide(g, &a, &b);
	v.verdict = d.verdict;
	v.word = d.word;
	v.pct = d.pct;
	v.dir = d.dir;
	{
		char change[96];
		int k;

		/* a bound's change as what it is sure of: "at most -50.0%, a fall of at
		 * least 50.0%" */
		if (d.dir == 2 || !isfinite(d.pct))
			snprintf(change, sizeof(change), "n/a");
		else if (d.dir != 0 && (d.dir < 0) == (d.pct < 0))
			snprintf(change, sizeof(change), "%s %+.1f%%, a %s of at least %.1f%%",
			         d.dir < 0 ? "at most" : "at least", d.pct,
			         d.pct < 0 ? "fall" : "rise", fabs(d.pct));
		else
			snprintf(change, sizeof(change), "%s%+.1f%%",
			         d.dir < 0   ? "at most "
			         : d.dir > 0 ? "at least "
			                     : "",
			         d.pct);
		k = snprintf(v.msg, sizeof(v.msg), "%s: %s %s (%s -> %s), %s", name, fn, change,
		             compare_gate_num(g, &a, unit).s, compare_gate_num(g, &b, unit).s,
		             d.why);
		if (d.bands && k > 0 && (size_t)k < sizeof(v.msg))
			snprintf(v.msg + k, sizeof(v.msg) - (size_t)k, ": bands %s-%s and %s-%s %s",
			         compare_num(a.lo).s, compare_num(a.hi).s, compare_num(b.lo).s,
			         compare_num(b.hi).s,
			         d.verdict == CMPGATE_BREACH ? "do not overlap" : "overlap");
	}
	return v;
}

/* Every gate on every workload of every later run; the number of breaches and of undecided. */
size_t compare_gates(const struct cmpgate *gates, size_t ngates, struct compare_run *runs,
                     size_t nruns, json_t *jgate, bool text, size_t *undecided)
{
	const struct campaign *c0 = runs[0].rp.campaign;
	size_t breaches = 0;

	*undecided = 0;
	for (size_t g = 0; g < ngates; g++)
		for (size_t r = 1; r < nruns; r++)
			for (size_t w = 0; w < c0->nworkloads; w++) {
				struct compare_verdict v =
				    compare_gate_one(&gates[g], runs, r, c0->workloads[w].name);
				bool breach = v.verdict == CMPGATE_BREACH,
				     open = v.verdict == CMPGATE_UNDECIDED;
				json_t *o;

				breaches += breach;
				*undecided += open;
				/*
				 * all to stdout with the tables; to stderr the undecided, and with
				 * --json the breaches (the text's end line counts them there)
				 */
				for (int out = 0; out < 2; out++)
					if (out == 0 ? text : open || (breach && !text))
						fprintf(out == 0 ? stdout : stderr,
						        "fail-if '%s': %s%s: %s: %s\n",
						        gates[g].text,
						        breach ? "BREACH "
						        : open ? "UNDECIDED "
						               : "",
						        runs[r].dir, v.word, v.msg);
				o = json_pack("{s:s,s:s,s:s,s:s,s:b,s:b,s:b,s:s}", "expression",
				              gates[g].text, "run", runs[r].dir, "workload",
				              c0->workloads[w].name, "verdict", v.word, "breach",
				              (int)breach, "undecided", (int)open, "beyond_noise",
				              (int)gates[g].noise, "message", v.msg);
				json_object_set_new(o, "change_pct",
				                    isfinite(v.pct) && v.dir != 2
				                        ? json_real(round(v.pct * 10) / 10)
				                        : json_null());
				json_object_set_new(o, "change_bound",
				                    v.dir == 2 || !isfinite(v.pct) ? json_null()
				                    : v.dir < 0 ? json_string("at most")
				                    : v.dir > 0 ? json_string("at least")
				                                : json_null());
				json_array_append_new(jgate, o);
			}
	return breaches;
}
