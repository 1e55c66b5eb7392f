/* SPDX-License-Identifier: MIT */
/* A workload's curve judged once per step: what every renderer, the events and the planner read. */
#ifndef IOCURVE_JUDGED_H
#define IOCURVE_JUDGED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "curve.h"
#include "verdict.h"

/* One point's verdict (verdict.h), judged once per update. */
struct judged_point {
	unsigned reasons;     /* verdict_point: 0 judged, else enum verdict_reason bits */
	bool valid;           /* reasons == 0: judged on the SLO */
	enum verdict_slo slo; /* verdict_judge: met, undecided, violated or not judged */
	bool violates;        /* violated: the knee never lies above it; shaded */
	bool meets;           /* met */
	bool saturated;       /* verdict_saturated by the stop rules... */
	char why[128];        /* ...and which rule ("" when not saturated) */
	/* "met", "violated", "undecided", or why not judged; then a background behind */
	char words[160 + RECORD_PATH_MAX + 128];
	double tp;         /* achieved, in the workload's unit (curve_throughput) */
	double offered_tp; /* offered, in the workload's unit (curve_offered_tp) */
};

/*
 * The curve of one workload as judged after its last step: the points in curve
 * order with their verdicts, the knee and its band, peak, sustained, the
 * limiting factor, repeats and errors. Each rule of curve.c and verdict.c runs
 * once per judged_update; nothing that reads this judges again. A zeroed
 * struct is an empty curve (n 0) that judged_free accepts.
 */
struct judged_curve {
	const struct campaign *c;
	const struct workload *w;
	size_t n;
	struct step_point *sorted;          /* the points in curve order (curve_sorted), owned */
	struct judged_point *v;             /* v[i] is the verdict on sorted[i] */
	size_t last;                        /* sorted[last] is the point run last (when n > 0) */
	struct knee knee;                   /* curve_knee: its indices are into sorted */
	double width;                       /* curve_band_width: NaN without a bracket */
	int digits;                         /* curve_knee_digits: 0 without a bracket */
	char advice[512];                   /* curve_knee_advice: "" unless no knee */
	bool capped;                        /* curve_capped: refinement cannot offer more */
	const char *kind;                   /* curve_knee_kind: "measured", "interpolated", ... */
	char precision[352];                /* curve_knee_precision: "band 1.2% wide" */
	double max_achieved;                /* curve_max_achieved, ops/s */
	const struct step_point *peak;      /* curve_peak, into sorted; NULL when n is 0 */
	double peak_tp;                     /* its throughput in the unit; 0 without */
	const struct step_point *sustained; /* curve_sustained, into sorted; NULL: none valid */
	char limit[384 + RECORD_PATH_MAX];  /* limit_judge: what limited the workload */
	const char *limit_word;             /* its headline word ("storage", "client queue") */
	struct ratecap ratecap;             /* ratecap_judge: a rate cap, or saturation */
	double client_bound;                /* curve_client_bound: 0, or the knee is a lower */
	double client_measured;             /* bound: disturbed from this rate, measured to that */
	struct curve_repeats repeats;       /* curve_repeats: n 0 without repeats */
	uint64_t errors;                    /* failed operations of every point */
	const struct step_point *first_error; /* first in run order with an errno, into sorted */
};

/*
 * Judge workload w of campaign c again from its points pts[0..n) in run order
 * (copied: pts may change or go afterwards), replacing what j held. c and w
 * must outlive j.
 */
void judged_update(struct judged_curve *j, const struct campaign *c, const struct workload *w,
                   const struct step_point *pts, size_t n);
/* Free what j holds and leave it empty. */
void judged_free(struct judged_curve *j);

/* Every workload of c judged from its points (pts[i][0..npts[i])); judged_free_all frees. */
struct judged_curve *judged_all(const struct campaign *c, const struct step_point *const *pts,
                                const size_t *npts);
/* Free the n curves of judged_all and the array. */
void judged_free_all(struct judged_curve *j, size_t n);

#endif
