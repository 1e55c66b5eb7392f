/* SPDX-License-Identifier: MIT */
/* The knee: the throughput a workload sustains at the latency target. */
#ifndef IOCURVE_KNEE_H
#define IOCURVE_KNEE_H

#include <stdbool.h>
#include <stddef.h>

struct knee_point {
	double throughput; /* achieved ops/s (or MiB/s) */
	double latency;    /* the SLO metric at that step, ns */
};

enum knee_kind {
	KNEE_NONE,         /* no points */
	KNEE_INTERPOLATED, /* bracketed by a step under and a step over the SLO */
	KNEE_ALL_UNDER,    /* every step met the SLO: knee is at least the best throughput */
	KNEE_ALL_OVER,     /* no step met the SLO */
	/*
	 * Some step exceeded the SLO, but the best answer is an under-SLO step
	 * itself: throughput fell past the crossing (so interpolating toward the
	 * over step gives less), or latency dipped back under the SLO later with
	 * no over step after it.
	 */
	KNEE_AT_STEP,
	/*
	 * No step violated the SLO, but steps above the highest that met it could not
	 * deliver their load (behind, backlog, queue-bound): the storage saturated under
	 * the SLO; the knee is that step and its band reaches the peak.
	 */
	KNEE_AT_PEAK,
};

struct knee {
	enum knee_kind kind;
	double throughput; /* 0 for KNEE_NONE and KNEE_ALL_OVER */
	/*
	 * KNEE_INTERPOLATED: the bracketing steps (above == below + 1).
	 * KNEE_ALL_UNDER, KNEE_AT_STEP: the step that gives the answer (above == below).
	 * KNEE_NONE, KNEE_ALL_OVER: both 0.
	 * From curve_knee, below is the bracket's met step and, when interpolated, the
	 * crossing lies between steps cross and above (cross == below unless undecided
	 * steps between the bracket's ends carry it); at a step, cross is the step whose
	 * figure the knee is (an undecided one under the SLO when the step past it
	 * achieved less).
	 */
	size_t below, above, cross;
	/*
	 * Set by curve_knee only (knee_find leaves them 0). The bracket: the knee
	 * lies between the best valid step that met the SLO (bracket_lo, its
	 * achieved throughput) and the offered rate of the lowest step above it
	 * that violated the SLO (bracket_hi, index over); 0 and 0 without one.
	 */
	double bracket_lo, bracket_hi;
	size_t over;
	/*
	 * Set by curve_knee only. The band: where the knee may lie by every piece of
	 * evidence. Its low end is the bracket's low end; its high end the higher of
	 * the bracket's high end and the highest step anywhere that met the SLO (a
	 * non-monotonic curve widens it). Each end is widened by the 95% interval of
	 * the SLO metric (step_point metric_lo_ns/metric_hi_ns): the low end is the
	 * highest valid step below the violation whose interval lies under the SLO,
	 * the high end the offered rate of the lowest step above the knee whose
	 * interval lies over it. With an ALL_UNDER knee: [knee, 0] (no upper end).
	 * 0 and 0 without a knee.
	 */
	double band_lo, band_hi;
	/*
	 * The knee is a measured valid step that met the SLO and is the step run
	 * last (the confirmation step of a campaign that asks for one), and no step
	 * above the violation met the SLO.
	 */
	bool confirmed;
	bool non_monotonic; /* a step met the SLO above a lower step that violated it */
	size_t last;        /* set by curve_knee: the open-loop step run last, index into sorted */
};

/*
 * points are in step order (offered load rising). The knee is the highest
 * achieved throughput whose latency is <= slo. Every step at or under the SLO
 * is a candidate; so is every crossing, a step at or under followed directly
 * by a step over, interpolated linearly in latency between the two:
 *   t = (slo - lat_below) / (lat_above - lat_below)
 *   throughput = thr_below + t * (thr_above - thr_below)
 * The answer is the largest candidate; a crossing wins ties with a step, so a
 * step whose latency equals the SLO exactly and is followed by an over step
 * reports KNEE_INTERPOLATED with t = 0; among equal steps the earliest is
 * reported. t is clamped to [0, 1]. A NaN latency counts as neither under
 * nor over: that step is skipped and brackets no crossing.
 */
struct knee knee_find(const struct knee_point *points, size_t n, double slo);

#endif
