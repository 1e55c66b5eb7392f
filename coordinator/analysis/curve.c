/* SPDX-License-Identifier: MIT */
/* A workload's curve judged: its order, throughput unit, knee, peak and limiting factor. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve.h"
#include "trace.h"
#include "units.h"
#include "verdict.h"
#include "xalloc.h"

bool curve_uses_mib(const struct workload *w)
{
	return !rw_is_random(w->io.rw);
}

bool curve_decimal(const struct workload *w)
{
	return w->io.decimal;
}

const char *curve_bw_unit(const struct workload *w)
{
	return curve_decimal(w) ? "MB/s" : "MiB/s";
}

const char *curve_rate_unit(const struct workload *w)
{
	return curve_decimal(w) ? "IOPS" : "ops/s";
}

const char *curve_unit(const struct workload *w)
{
	return curve_uses_mib(w) ? curve_bw_unit(w) : curve_rate_unit(w);
}

double curve_shown_bw(const struct workload *w, double mib_s)
{
	return curve_decimal(w) ? mib_s * CURVE_MB_PER_MIB : mib_s;
}

double curve_shown(const struct workload *w, double v)
{
	return curve_uses_mib(w) ? curve_shown_bw(w, v) : v;
}

double curve_mean_mibps(const struct workload *w, double ops)
{
	return ops * mix_mean_bytes(&w->io.mix, w->io.block_size) / (1024.0 * 1024.0);
}

/* A mix part's blocks from this size up are large: bandwidth is what they are asked for. */
#define CURVE_LARGE_BLOCK (64u * 1024u)

bool curve_mix_bw_too(const struct workload *w)
{
	const struct mix *m = &w->io.mix;
	double big = 0, all = 0;

	if (m->nparts == 0 || curve_uses_mib(w))
		return false;
	for (uint32_t i = 0; i < m->nparts; i++) {
		const struct mix_part *p = &m->parts[i];
		double bytes = mix_sizes_mean(&p->sizes, p->block_size) * p->share;

		all += bytes;
		if (!rw_is_random(p->rw) ||
		    mix_sizes_mean(&p->sizes, p->block_size) >= CURVE_LARGE_BLOCK)
			big += bytes;
	}
	return all > 0 && big > all / 2;
}

double curve_speed(const struct workload *w, double ops)
{
	double x1 = w->replay != NULL ? trace_rate(w->replay) : 0;

	return x1 > 0 ? ops / x1 : NAN;
}

const char *curve_speed_words(const struct workload *w, double ops, char *buf, size_t len)
{
	double v = curve_speed(w, ops);

	if (isfinite(v) && v > 0)
		snprintf(buf, len, " (x%.2f of the trace)", floor(v * 100 + 1e-9) / 100);
	else if (len > 0)
		buf[0] = '\0';
	return buf;
}

double curve_throughput(const struct workload *w, const struct step_point *p)
{
	return curve_uses_mib(w) ? p->mib_s : p->achieved_ops;
}

static int curve_cmp(const void *a, const void *b)
{
	const struct step_point *x = a, *y = b;
	double ox = x->offered_ops > 0 ? x->offered_ops : INFINITY;
	double oy = y->offered_ops > 0 ? y->offered_ops : INFINITY;

	if (ox != oy)
		return ox < oy ? -1 : 1;
	return x->step < y->step ? -1 : x->step > y->step;
}

struct step_point *curve_sorted(const struct step_point *pts, size_t n)
{
	struct step_point *s = xcalloc(n, sizeof(*s));

	if (n)
		memcpy(s, pts, n * sizeof(*s));
	qsort(s, n, sizeof(*s), curve_cmp);
	return s;
}

double curve_offered_tp(const struct workload *w, const struct step_point *p)
{
	if (!curve_uses_mib(w))
		return p->offered_ops;
	if (p->achieved_ops > 0)
		return p->offered_ops * p->mib_s / p->achieved_ops;
	return p->offered_ops * (double)w->io.block_size / (1024.0 * 1024.0);
}

/* What a step sustained, never more than it was offered (Poisson count noise). */
static double curve_sustained_tp(const struct workload *w, const struct step_point *p)
{
	return fmin(curve_throughput(w, p), curve_offered_tp(w, p));
}

/*
 * The knee inside the bracket: where the measured metric crosses the SLO, through
 * every step from the met one to the violation that measured its load (undecided
 * steps too: their interval straddles the SLO, their metric is still the best
 * estimate of the curve there), interpolated between the two steps of the highest
 * crossing. Interpolating from the met step straight to the violation instead drew
 * a chord under a convex curve: an M/M/64 queue with three undecided steps between
 * 6,423 and 7,740 ops/s had its knee put at 6,700 against Erlang C's 7,496, where
 * the steps' own means cross at 7,572.
 */
static void curve_knee_between(const struct campaign *c, const struct workload *w,
                               const struct step_point *sorted, struct knee *k)
{
	struct knee_point *kp = xcalloc(k->over - k->below + 1, sizeof(*kp));
	size_t *at = xcalloc(k->over - k->below + 1, sizeof(*at)), n = 0;
	struct knee found;

	k->kind = KNEE_AT_STEP;
	k->cross = k->below;
	/* within 2% above a measured step: the crossing is that step */
	if (k->bracket_hi - k->bracket_lo > THRESH_PRECISION * k->bracket_lo) {
		for (size_t i = k->below; i <= k->over; i++) {
			const struct step_point *p = &sorted[i];

			if (p->offered_ops <= 0 ||
			    (i != k->below && i != k->over && !verdict_undecided(c, p)))
				continue;
			/* never more than offered: a knee past its own band is no knee */
			kp[n] = (struct knee_point){curve_sustained_tp(w, p),
			                            step_metric(p, c->slo_metric)};
			at[n++] = i;
		}
		found = knee_find(kp, n, (double)c->slo_latency_ns);
		if (found.kind == KNEE_INTERPOLATED) {
			k->kind = KNEE_INTERPOLATED;
			k->throughput = found.throughput;
			k->cross = at[found.below];
			k->above = at[found.above];
		} else if (found.kind == KNEE_AT_STEP && found.throughput > k->throughput) {
			/*
			 * an undecided step under the SLO achieved the most (the step past it
			 * achieved less, Poisson noise in its count): the metric crosses there
			 */
			k->throughput = found.throughput;
			k->cross = at[found.below];
		}
	}
	free(kp);
	free(at);
}

/* The highest achieved throughput of any step, in the workload's unit: no band reaches past it. */
static double curve_top_tp(const struct workload *w, const struct step_point *sorted, size_t n)
{
	double top = 0;

	for (size_t i = 0; i < n; i++)
		top = fmax(top, curve_throughput(w, &sorted[i]));
	return top;
}

/*
 * An undecided step below the knee's met step may be a violation: the band reaches down
 * to the met step under the lowest such step (0 when none met under it).
 */
static double curve_band_low(const struct campaign *c, const struct workload *w,
                             const struct step_point *sorted, size_t lo, double low)
{
	for (size_t i = 0; i < lo; i++) {
		double under = 0;

		if (sorted[i].offered_ops <= 0 || !verdict_undecided(c, &sorted[i]))
			continue;
		for (size_t j = 0; j < i; j++)
			if (sorted[j].offered_ops > 0 && verdict_meets(c, &sorted[j]))
				under = curve_sustained_tp(w, &sorted[j]);
		return fmin(low, under);
	}
	return low;
}

/*
 * The knee's band (knee.h): from the met step under the knee to the violation, widened
 * by undecided steps (above, and below: curve_band_low) and by steps that met the SLO
 * above the violation (a non-monotonic curve), never above the highest throughput
 * achieved.
 */
static void curve_knee_band(const struct campaign *c, const struct workload *w,
                            const struct step_point *sorted, size_t n, struct knee *k)
{
	double top = curve_top_tp(w, sorted, n);

	k->band_lo = curve_band_low(c, w, sorted, k->below, k->bracket_lo);
	k->band_hi = k->bracket_hi;
	for (size_t i = k->below + 1; i < n; i++) {
		if (sorted[i].offered_ops <= 0)
			continue;
		if (verdict_undecided(c, &sorted[i]))
			k->band_hi = fmax(k->band_hi, curve_offered_tp(w, &sorted[i]));
		else if (verdict_meets(c, &sorted[i]))
			k->band_hi = fmax(k->band_hi, curve_sustained_tp(w, &sorted[i]));
	}
	k->band_hi = fmax(fmin(k->band_hi, top), k->band_lo);
}

/*
 * A step that could not keep up with its rate (behind, or its backlog grew): past the
 * peak. Not where the client was disturbed (client-bound): a client whose host had no
 * CPU to spare falls behind by itself, so the storage is not shown to have saturated.
 */
static bool curve_saturated_step(const struct step_point *p)
{
	unsigned r = verdict_point(p);

	return p->offered_ops > 0 && (r & (VERDICT_BEHIND | VERDICT_BACKLOG)) &&
	       !(r & VERDICT_CLIENT_BOUND);
}

/* The open-loop step run last (highest step number); n when none. */
static size_t curve_last_run(const struct step_point *sorted, size_t n)
{
	size_t last = n;

	for (size_t i = 0; i < n; i++)
		if (sorted[i].offered_ops > 0 && (last == n || sorted[i].step > sorted[last].step))
			last = i;
	return last;
}

struct knee curve_knee(const struct campaign *c, const struct workload *w,
                       const struct step_point *sorted, size_t n)
{
	struct knee k = {.kind = KNEE_NONE};
	size_t cap = n, lo = n, sat = n;
	bool open = false;

	/* sorted by offered rate: the first violation is the lowest offered rate that violated */
	for (size_t i = 0; i < n; i++) {
		open |= sorted[i].offered_ops > 0;
		if (cap == n && sorted[i].offered_ops > 0 && verdict_violates(c, &sorted[i]))
			cap = i;
	}
	if (!open)
		return k;
	k.last = curve_last_run(sorted, n);
	for (size_t i = 0; i < n; i++) {
		if (sorted[i].offered_ops <= 0 || !verdict_meets(c, &sorted[i]))
			continue;
		/* under, over, under again */
		if (cap < n && sorted[i].offered_ops > sorted[cap].offered_ops)
			k.non_monotonic = true;
		if (cap == n || sorted[i].offered_ops < sorted[cap].offered_ops)
			lo = i;
		/* at the violation's own rate (a repeat): noise, neither knee nor non-monotonic */
	}
	if (lo == n) {
		k.kind = KNEE_ALL_OVER;
		return k;
	}
	k.below = k.above = k.cross = lo;
	/*
	 * What the step sustained, but never more than was offered: with Poisson arrivals
	 * a window can complete a little more than its rate (count noise).
	 */
	k.throughput = curve_sustained_tp(w, &sorted[lo]);
	k.bracket_lo = k.throughput;
	if (cap == n) {
		/*
		 * Nothing violated: the first step above that was not met says what the
		 * knee is. One that fell behind its rate (or its backlog grew): the storage
		 * saturated under the SLO, a peak. Anything else (undecided, queue-bound,
		 * client-bound): the knee may lie higher, a lower bound.
		 */
		for (size_t i = lo + 1; i < n && sat == n; i++)
			if (sorted[i].offered_ops > 0 && !verdict_meets(c, &sorted[i]) &&
			    !verdict_undecided(c, &sorted[i]))
				sat = i;
		if (sat < n && !curve_saturated_step(&sorted[sat]))
			sat = n;
		if (sat == n) {
			k.kind = KNEE_ALL_UNDER;
			k.band_lo = curve_band_low(c, w, sorted, lo, k.throughput);
			k.bracket_lo = 0;
			return k;
		}
		k.kind = KNEE_AT_PEAK;
		k.over = sat;
		k.bracket_hi =
		    fmax(fmin(curve_offered_tp(w, &sorted[sat]), curve_top_tp(w, sorted, n)),
		         k.throughput);
	} else {
		k.over = cap;
		k.bracket_hi =
		    fmax(fmin(curve_offered_tp(w, &sorted[cap]), curve_top_tp(w, sorted, n)),
		         k.throughput);
		curve_knee_between(c, w, sorted, &k);
	}
	curve_knee_band(c, w, sorted, n, &k);
	/* confirmed: measured at the confirmation step, which met the SLO, the band within 5% */
	k.confirmed = (k.kind == KNEE_AT_STEP || k.kind == KNEE_AT_PEAK) && k.last == lo &&
	              w->refine > 0 && !w->skip_confirm && !k.non_monotonic &&
	              k.band_hi - k.band_lo <= THRESH_CONFIRM_WIDTH * k.band_lo;
	return k;
}

double curve_bracket_width(const struct knee *k)
{
	if (!(k->bracket_lo > 0) || !(k->bracket_hi > 0))
		return NAN;
	return (k->bracket_hi - k->bracket_lo) / k->bracket_lo;
}

double curve_band_width(const struct knee *k)
{
	if (!(k->bracket_hi > 0))
		return NAN;
	if (!(k->band_lo > 0) || !(k->band_hi > 0))
		return INFINITY;
	return (k->band_hi - k->band_lo) / k->band_lo;
}

int curve_knee_digits(const struct knee *k)
{
	double width = curve_band_width(k);
	int d;

	if (isnan(width))
		return 0;
	if (isinf(width))
		return 1;
	if (width <= 1e-6)
		return 6;
	d = (int)ceil(-log10(width)) + 1;
	return d < 1 ? 1 : d > 6 ? 6 : d;
}

double curve_round(double v, int digits)
{
	double scale;

	if (digits <= 0 || !(v > 0))
		return v;
	scale = pow(10, floor(log10(v)) - digits + 1);
	return round(v / scale) * scale;
}

double curve_round_out(double v, int digits, int dir)
{
	double scale;

	if (digits <= 0 || !(v > 0))
		return v;
	scale = pow(10, floor(log10(v)) - digits + 1);
	return (dir < 0 ? floor(v / scale + 1e-9) : ceil(v / scale - 1e-9)) * scale;
}

double curve_max_achieved(const struct step_point *pts, size_t n)
{
	double best = 0;

	for (size_t i = 0; i < n; i++)
		if (pts[i].achieved_ops > best)
			best = pts[i].achieved_ops;
	return best;
}

bool curve_capped(const struct knee *k, const struct step_point *sorted, size_t n)
{
	return k->bracket_hi > 0 &&
	       curve_max_achieved(sorted, n) <= sorted[k->below].offered_ops * (1 + 1e-3);
}

/*
 * The steps above the knee left undecided, and how long the lowest of them would have to
 * be measured to decide (the budget of steady: ran out first), or that none would.
 */
static void curve_undecided_why(const struct campaign *c, const struct workload *w,
                                const struct knee *k, const struct step_point *sorted, size_t n,
                                size_t undecided, char *buf, size_t len)
{
	const struct step_point *low = NULL;
	char need[32] = "", had[32], where[64];
	bool under = false;
	double ns;

	/* the band reaching under the knee's met step: the undecided step that pulled it */
	for (size_t i = 0; i < k->below && low == NULL; i++)
		if (sorted[i].offered_ops > 0 && verdict_undecided(c, &sorted[i]))
			low = &sorted[i];
	under = low != NULL;
	for (size_t i = k->below + 1; i < n && low == NULL; i++)
		if (sorted[i].offered_ops > 0 && verdict_undecided(c, &sorted[i]))
			low = &sorted[i];
	if (under)
		snprintf(where, sizeof(where), "a step under the knee undecided");
	else
		snprintf(where, sizeof(where), "%zu step%s above the knee undecided", undecided,
		         undecided == 1 ? "" : "s");
	ns = verdict_decide_ns(c, low, (double)low->intervals * (double)w->interval_ns);
	units_format_plan_duration((uint64_t)((double)low->intervals * (double)w->interval_ns), had,
	                           sizeof(had));
	if (ns > 0)
		units_format_duration((uint64_t)ns, need, sizeof(need));
	snprintf(buf, len,
	         ": %s (its 95%% interval holds the SLO); at %.0f ops/s, measured %s, %s%s%s",
	         where, low->offered_ops, had,
	         ns > 0 ? "it would need about " : "its latency is the SLO's: no length decides it",
	         need, ns > 0 ? " to decide (steady: {budget})" : "");
}

/* Why a knee with a band of width (%) is not confirmed, or why the band is that wide. */
static void curve_band_why(const struct campaign *c, const struct workload *w, const struct knee *k,
                           const struct step_point *sorted, size_t n, double width, char *buf,
                           size_t len)
{
	const struct step_point *last = k->last < n ? &sorted[k->last] : NULL;
	size_t undecided = 0;
	char words[96];

	buf[0] = '\0';
	for (size_t i = k->below + 1; i < n; i++)
		undecided += sorted[i].offered_ops > 0 && verdict_undecided(c, &sorted[i]);
	/* an undecided step under the knee's met step widened the band down (curve_band_low) */
	if (k->band_lo < k->bracket_lo)
		undecided++;
	if (k->non_monotonic)
		snprintf(buf, len,
		         ": a step above the violation met the SLO, the band reaches %.0f",
		         k->band_hi);
	else if (k->kind == KNEE_AT_PEAK && width > 100 * THRESH_PRECISION)
		snprintf(buf, len,
		         ": the storage saturated under the SLO; the steps between the knee and "
		         "the peak could not deliver their load");
	else if (k->kind == KNEE_AT_PEAK)
		snprintf(buf, len, ": the storage saturated under the SLO, at the peak");
	else if (undecided > 0 && width > 100 * THRESH_PRECISION)
		curve_undecided_why(c, w, k, sorted, n, undecided, buf, len);
	else if (width > 100 * THRESH_PRECISION && curve_capped(k, sorted, n))
		snprintf(buf, len,
		         ": no step achieved more than its low end, so refinement cannot offer "
		         "more");
	else if (width > 100 * THRESH_PRECISION && w->refine == 0)
		snprintf(buf, len, ": no refinement asked (load.refine)");
	else if (width > 100 * THRESH_PRECISION)
		snprintf(buf, len, ": the refine budget (%u steps) is spent", w->refine);
	if (k->confirmed || buf[0] != '\0')
		return;
	if (w->refine == 0 || w->skip_confirm)
		snprintf(buf, len, ": no confirmation step asked");
	else if (width > 100 * THRESH_CONFIRM_WIDTH)
		snprintf(buf, len, ": not confirmed, the band is over %.0f%% wide",
		         100 * THRESH_CONFIRM_WIDTH);
	else if (last != NULL && k->last != k->below) {
		unsigned r = verdict_point(last);

		verdict_words(last, r, words, sizeof(words));
		snprintf(buf, len, ": the step run last (offered %.0f ops/s) %s%s%s%s",
		         last->offered_ops, verdict_slo_word(verdict_judge(c, last)), r ? " (" : "",
		         r ? words : "", r ? ")" : "");
	} else
		snprintf(buf, len, ": no confirmation step at the knee");
}

void curve_knee_precision(const struct campaign *c, const struct workload *w, const struct knee *k,
                          const struct step_point *sorted, size_t n, char *buf, size_t len)
{
	double width = 100 * curve_band_width(k);
	char why[192 + RECORD_PATH_MAX];

	if (k->kind == KNEE_ALL_UNDER)
		snprintf(buf, len,
		         "no step violated the SLO: the knee lies above the load offered");
	else if (k->kind == KNEE_ALL_OVER || k->kind == KNEE_NONE)
		snprintf(buf, len, "no step met the SLO");
	else {
		curve_band_why(c, w, k, sorted, n, width, why, sizeof(why));
		if (isinf(width))
			snprintf(buf, len, "band open below%s", why);
		else
			snprintf(buf, len, "band %.1f%% wide%s", width, why);
	}
}

void curve_knee_advice(const struct campaign *c, const struct workload *w, const struct knee *k,
                       const struct step_point *sorted, size_t n, char *buf, size_t len)
{
	size_t cap = n, used = 0, listed = 0, kept = 0;
	unsigned all = 0;
	const struct step_point *first = NULL;
	char words[160 + RECORD_PATH_MAX], change[192];

	buf[0] = '\0';
	if (k->kind != KNEE_ALL_OVER && k->kind != KNEE_ALL_UNDER)
		return;
	for (size_t i = 0; i < n && cap == n; i++)
		if (sorted[i].offered_ops > 0 && verdict_violates(c, &sorted[i]))
			cap = i;
	for (size_t i = 0; i < cap; i++) {
		unsigned r = verdict_point(&sorted[i]);

		/* a lower bound: the steps above it that met the SLO but could not count */
		if (sorted[i].offered_ops <= 0 ||
		    (k->kind == KNEE_ALL_UNDER && (i <= k->below || !r)))
			continue;
		kept++;
		all |= r;
		if (first == NULL && r != 0)
			first = &sorted[i];
		if (listed < 4 && used < len) {
			verdict_words(&sorted[i], r, words, sizeof(words));
			used += (size_t)snprintf(buf + used, len - used,
			                         "%sstep %u (%.0f ops/s): %s", listed ? "; " : "",
			                         sorted[i].step + 1, sorted[i].offered_ops, words);
			listed++;
		}
	}
	if (kept > listed && used < len)
		used += (size_t)snprintf(buf + used, len - used, "; %zu more", kept - listed);
	if (kept == 0 && k->kind == KNEE_ALL_UNDER)
		return;
	if (kept == 0) {
		if (cap < n)
			snprintf(
			    buf, len,
			    "the lowest step (%.0f ops/s) already violated the SLO: start lower",
			    sorted[cap].offered_ops);
		else
			snprintf(buf, len, "no open-loop step met the SLO: start lower");
		return;
	}
	if (!verdict_change(w, first ? first : &sorted[0], all, change, sizeof(change)))
		snprintf(change, sizeof(change), "start lower");
	if (used < len)
		snprintf(buf + used, len - used, ". Change: %s", change);
}

const char *curve_knee_kind(const struct knee *k)
{
	switch (k->kind) {
	case KNEE_INTERPOLATED:
		return "interpolated";
	case KNEE_AT_STEP:
		return "measured";
	case KNEE_ALL_UNDER:
		return "above_peak";
	case KNEE_AT_PEAK:
		return "at_peak";
	default:
		return "none";
	}
}

const struct step_point *curve_peak(const struct workload *w, const struct step_point *pts,
                                    size_t n)
{
	const struct step_point *best = NULL;

	for (size_t i = 0; i < n; i++)
		if (best == NULL || curve_throughput(w, &pts[i]) > curve_throughput(w, best))
			best = &pts[i];
	return best;
}

const struct step_point *curve_sustained(const struct workload *w, const struct step_point *pts,
                                         size_t n)
{
	const struct step_point *best = NULL;

	for (size_t i = 0; i < n; i++)
		if (verdict_valid(&pts[i]) &&
		    (best == NULL || curve_throughput(w, &pts[i]) > curve_throughput(w, best)))
			best = &pts[i];
	return best;
}

double curve_in_flight(const struct step_point *p)
{
	return p->achieved_ops * p->svc_mean_ns / 1e9;
}

uint64_t curve_errors(const struct step_point *pts, size_t n, const struct step_point **first)
{
	uint64_t errors = 0;

	*first = NULL;
	for (size_t i = 0; i < n; i++) {
		errors += pts[i].errors;
		if (*first == NULL && (pts[i].err_errno != 0 || pts[i].err_cause[0] != '\0'))
			*first = &pts[i];
	}
	return errors;
}

void curve_error_words(const struct step_point *p, uint64_t errors, char *buf, size_t len)
{
	char what[RECORD_CAUSE_MAX + 32];

	if (p == NULL) {
		snprintf(buf, len, "%llu failed operations", (unsigned long long)errors);
		return;
	}
	record_err_words(p->err_errno, p->err_cause, what, sizeof(what));
	if (record_err_names_path(p->err_cause))
		snprintf(buf, len, "%s", what);
	else
		snprintf(buf, len, "%s on %s", what, p->err_path);
}

/* The points offered this rate (repeats of one step). */
static size_t curve_same_rate(const struct step_point *pts, size_t n, double rate, size_t *idx,
                              size_t max)
{
	size_t m = 0;

	for (size_t i = 0; i < n && m < max; i++)
		if (pts[i].offered_ops > 0 && pts[i].offered_ops == rate)
			idx[m++] = i;
	return m;
}

void curve_repeats(const struct campaign *c, const struct workload *w, const struct step_point *pts,
                   size_t n, struct curve_repeats *r)
{
	size_t idx[CURVE_MAX_REPEATS], m = 0;
	uint32_t last = 0;
	double sum = 0, ss = 0;

	memset(r, 0, sizeof(*r));
	if (w->repeat < 2)
		return;
	/* the rate offered more than once that was run last: the repeated confirmation step */
	for (size_t i = 0; i < n; i++) {
		size_t got[CURVE_MAX_REPEATS], k;

		if (pts[i].offered_ops <= 0 || (m > 0 && pts[i].step <= last))
			continue;
		k = curve_same_rate(pts, n, pts[i].offered_ops, got, CURVE_MAX_REPEATS);
		if (k >= 2) {
			m = k;
			memcpy(idx, got, k * sizeof(*idx));
			last = pts[i].step;
		}
	}
	if (m < 2)
		return;
	/* each repeat's knee: the curve with that repeat as its only confirmation step */
	for (size_t j = 0; j < m; j++) {
		struct step_point *one = xcalloc(n, sizeof(*one)), *s;
		size_t k = 0, q = 0;
		struct knee kn;

		for (size_t i = 0; i < n; i++) {
			while (q < m && idx[q] < i)
				q++;
			if (i == idx[j] || q >= m || idx[q] != i)
				one[k++] = pts[i];
		}
		s = curve_sorted(one, k);
		kn = curve_knee(c, w, s, k);
		r->knee[j] = kn.throughput;
		sum += kn.throughput;
		free(s);
		free(one);
	}
	{
		struct step_point *s = curve_sorted(pts, n);
		struct knee all = curve_knee(c, w, s, n);

		r->bracket = all.bracket_hi > 0 ? all.bracket_hi - all.bracket_lo : 0;
		free(s);
	}
	r->n = m;
	r->mean = sum / (double)m;
	for (size_t j = 0; j < m; j++)
		ss += (r->knee[j] - r->mean) * (r->knee[j] - r->mean);
	r->sd = sqrt(ss / (double)(m - 1));
	r->ci = agg_t95(m - 1) * r->sd / sqrt((double)m);
}

double curve_spread_pct(const struct curve_repeats *r)
{
	return r->n >= 2 && r->mean > 0 ? 100 * r->sd / r->mean : NAN;
}

double curve_repeats_ci_pct(const struct curve_repeats *r)
{
	return r->n >= 2 && r->mean > 0 ? 100 * r->ci / r->mean : NAN;
}

bool curve_knee_interval(const struct knee *k, const struct curve_repeats *r, double *lo,
                         double *hi)
{
	bool band = k->bracket_hi > 0;

	*lo = band ? k->band_lo : INFINITY;
	*hi = band ? k->band_hi : -INFINITY;
	if (r->n >= 2) {
		*lo = fmin(*lo, r->mean - r->ci);
		*hi = fmax(*hi, r->mean + r->ci);
	}
	return band || r->n >= 2;
}

enum curve_noise curve_compare_noise(const struct knee *ka, const struct curve_repeats *ra,
                                     const struct knee *kb, const struct curve_repeats *rb)
{
	double alo, ahi, blo, bhi;

	if (!curve_knee_interval(ka, ra, &alo, &ahi) || !curve_knee_interval(kb, rb, &blo, &bhi))
		return CURVE_NOISE_UNKNOWN;
	return ahi < blo || bhi < alo ? CURVE_NOISE_BEYOND : CURVE_NOISE_WITHIN;
}

double curve_client_bound(const struct knee *k, const struct step_point *sorted, size_t n,
                          double *measured)
{
	double low = 0, cap = INFINITY, bound = 0;

	*measured = 0;
	if (k->kind == KNEE_AT_STEP || k->kind == KNEE_INTERPOLATED || k->kind == KNEE_ALL_UNDER ||
	    k->kind == KNEE_AT_PEAK)
		low = sorted[k->below].offered_ops;
	if (k->bracket_hi > 0)
		cap = sorted[k->over].offered_ops;
	for (size_t i = 0; i < n && bound == 0; i++)
		if (sorted[i].offered_ops > low && sorted[i].offered_ops < cap &&
		    sorted[i].client.bound)
			bound = sorted[i].offered_ops;
	for (size_t i = 0; i < n && bound > 0; i++)
		if (sorted[i].offered_ops > 0 && sorted[i].offered_ops < bound &&
		    !sorted[i].client.bound)
			*measured = sorted[i].offered_ops;
	return bound;
}
