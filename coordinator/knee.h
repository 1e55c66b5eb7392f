/* SPDX-License-Identifier: MIT */
/* The knee: the throughput a workload sustains at the latency target. */
#ifndef IOCURVE_KNEE_H
#define IOCURVE_KNEE_H

#include <stdbool.h>
#include <stddef.h>

struct knee_point {
	double throughput; /* achieved ops/s (or MiB/s) */
	double latency;	   /* the SLO metric at that step, ns */
};

enum knee_kind {
	KNEE_NONE,	  /* no points */
	KNEE_INTERPOLATED, /* bracketed by a step under and a step over the SLO */
	KNEE_ALL_UNDER,	  /* every step met the SLO: knee is at least the best throughput */
	KNEE_ALL_OVER,	  /* no step met the SLO */
};

struct knee {
	enum knee_kind kind;
	double throughput; /* KNEE_INTERPOLATED/ALL_UNDER: the value; else 0 */
	size_t below, above; /* bracketing point indexes when interpolated */
};

/*
 * points are in step order (offered load rising). The knee is the highest
 * achieved throughput whose latency is <= slo: among steps where latency first
 * crosses the SLO going up the curve, interpolate linearly in latency between the
 * last step at or under and the first step over; the answer is the largest such
 * value (or the best under-SLO step if it is higher).
 */
struct knee knee_find(const struct knee_point *points, size_t n, double slo);

#endif
