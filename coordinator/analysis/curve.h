/* SPDX-License-Identifier: MIT */
/* The rules over a workload's curve: order, unit, knee, peak, limit (judged.h runs them). */
#ifndef IOCURVE_CURVE_H
#define IOCURVE_CURVE_H

#include <stdbool.h>
#include <stddef.h>

#include "aggregate.h"
#include "campaign.h"
#include "knee.h"
#include "ratecap.h"

/* Sequential workloads are judged in MiB/s, random ones in ops/s, as published tables do. */
bool curve_uses_mib(const struct workload *w);
/*
 * units: decimal, as IOmeter shows them: bandwidth in MB/s (10^6 bytes), rates as
 * IOPS. Only what is shown changes: the analysis and summary.json's keys stay in
 * MiB/s and ops/s.
 */
bool curve_decimal(const struct workload *w);
/* The workload's unit as shown: "MiB/s" or "MB/s" (sequential), "ops/s" or "IOPS". */
const char *curve_unit(const struct workload *w);
/* Its bandwidth unit ("MiB/s", "MB/s") and rate unit ("ops/s", "IOPS") as shown. */
const char *curve_bw_unit(const struct workload *w);
const char *curve_rate_unit(const struct workload *w);
/* A throughput in the workload's unit (curve_throughput's) as shown: MiB/s to MB/s. */
double curve_shown(const struct workload *w, double v);
/* MiB/s to the workload's bandwidth unit as shown. */
double curve_shown_bw(const struct workload *w, double mib_s);
#define CURVE_MB_PER_MIB 1.048576
/*
 * The MiB/s that ops operations a second of w move at its mean block: a mix's shares
 * times its parts' sizes, a size distribution's mean (mix_mean_bytes), else block_size.
 */
double curve_mean_mibps(const struct workload *w, double ops);
/*
 * Whether w's knee in ops/s is said in MiB/s at its mean block too: a mix judged in
 * ops/s (a random part) whose sequential parts and parts of 64 KiB blocks or more move
 * over half of its bytes (a log or backup stream beside small random reads).
 */
bool curve_mix_bw_too(const struct workload *w);
/*
 * A replay's rate in ops/s as a speed of its trace (ops over the trace's x1 rate:
 * load.speeds' unit); NaN for a workload that replays nothing.
 */
double curve_speed(const struct workload *w, double ops);
/*
 * " (x3.02 of the trace)" for a replay's rate in ops/s (its speed cut, never raised, to
 * two decimals, as the figures beside it are), "" for any other workload. Returns buf.
 */
const char *curve_speed_words(const struct workload *w, double ops, char *buf, size_t len);
/* A point's throughput in the workload's unit. */
double curve_throughput(const struct workload *w, const struct step_point *p);
/*
 * The points in curve order: by offered rate, max (closed-loop) steps last,
 * then by run order. Returns a copy the caller frees.
 */
struct step_point *curve_sorted(const struct step_point *pts, size_t n);

/* A point's offered rate in the workload's unit. */
double curve_offered_tp(const struct workload *w, const struct step_point *p);
/*
 * The knee of sorted points (curve_sorted) against the campaign's SLO and
 * metric, from each step's verdict (verdict_judge). It never lies above the
 * lowest offered rate whose point violated the SLO: the highest met step below
 * that rate is the knee's low end, the violating step its high end (the
 * bracket, its top never above the highest throughput achieved). Within 2% the
 * knee is that step, measured; wider, it is interpolated in the metric towards
 * the violation's (achieved throughput, latency): a measured pair, also for a
 * violation that fell behind its rate. Without a violation: at the peak or a
 * lower bound (knee.h). A step met above the violation sets non_monotonic.
 */
struct knee curve_knee(const struct campaign *c, const struct workload *w,
                       const struct step_point *sorted, size_t n);
/* (high - low) / low of the knee's bracket; NaN without one. */
double curve_bracket_width(const struct knee *k);
/*
 * (high - low) / low of the knee's band (knee.h); NaN without a bracket,
 * infinite when the band has no low end (no step surely met the SLO).
 */
double curve_band_width(const struct knee *k);
/* Significant digits the band supports (2% wide: 3; open: 1); 0 without a bracket. */
int curve_knee_digits(const struct knee *k);
/* v to that many significant digits (0: as is). */
double curve_round(double v, int digits);
/*
 * v to that many significant digits, rounded down (dir < 0) or up (dir > 0): a
 * band's ends, printed so that the printed band holds the band.
 */
double curve_round_out(double v, int digits, int dir);
/* The highest achieved ops/s of any point. */
double curve_max_achieved(const struct step_point *pts, size_t n);
/* Whether no point achieved more than the bracket's low end offered: refinement cannot go up. */
bool curve_capped(const struct knee *k, const struct step_point *sorted, size_t n);
/*
 * How precise the knee is ("band 0.9% wide") and, when its band is wider than
 * its bracket or than 2%, or the knee is not confirmed, why (after ": ").
 */
void curve_knee_precision(const struct campaign *c, const struct workload *w, const struct knee *k,
                          const struct step_point *sorted, size_t n, char *buf, size_t len);
/*
 * With no knee (KNEE_ALL_OVER): which rule kept each step below the first
 * violation out (its verdict words) and the one change that would help
 * ("steps of 2 s give 2 measured intervals, 5 are needed: measure: 5s").
 * With a lower bound (KNEE_ALL_UNDER): the same for the steps above it that met
 * the SLO but were not valid, "" when there were none. "" for any other knee.
 */
void curve_knee_advice(const struct campaign *c, const struct workload *w, const struct knee *k,
                       const struct step_point *sorted, size_t n, char *buf, size_t len);
/* "measured", "interpolated", "above_peak", "none": for summary.json. */
const char *curve_knee_kind(const struct knee *k);
/* The highest-throughput point, the capacity, valid or not (NULL when n is 0). */
const struct step_point *curve_peak(const struct workload *w, const struct step_point *pts,
                                    size_t n);
/* The highest-throughput valid point (NULL when none): its latency can be published. */
const struct step_point *curve_sustained(const struct workload *w, const struct step_point *pts,
                                         size_t n);
/* Operations in the storage on average, by Little's law: achieved x service time. */
double curve_in_flight(const struct step_point *p);

/* load.repeat: the confirmation step run N times; the knee as their mean and spread. */
#define CURVE_MAX_REPEATS 20
struct curve_repeats {
	size_t n;                       /* repeats found: 0 when fewer than 2 */
	double knee[CURVE_MAX_REPEATS]; /* each one's knee, in the workload's unit, in run order */
	double mean;
	double sd; /* the sample standard deviation (n - 1) of knee[] */
	double ci; /* half-width of the 95% interval of the mean: t(0.975, n - 1) sd / sqrt(n) */
	double bracket; /* the width of the knee's bracket (all points), 0 without one */
};
/*
 * With w->repeat >= 2: the points offered the same rate (the last such rate
 * run), and for each the knee curve_knee finds with it as the only one of
 * them (the others left out): that knee's noise from one run of the step.
 */
void curve_repeats(const struct campaign *c, const struct workload *w, const struct step_point *pts,
                   size_t n, struct curve_repeats *r);
/* sd / mean in %; NaN without repeats. */
double curve_spread_pct(const struct curve_repeats *r);
/* ci / mean in %: the 95% interval of the repeats' mean; NaN without repeats. */
double curve_repeats_ci_pct(const struct curve_repeats *r);
/*
 * A knee's 95% interval for comparing runs: its band (knee.h) joined with, with
 * repeats, the t-based 95% interval of their mean. false when it has neither
 * (no bracket: no knee, or a lower bound).
 */
bool curve_knee_interval(const struct knee *k, const struct curve_repeats *r, double *lo,
                         double *hi);
enum curve_noise { CURVE_NOISE_UNKNOWN, CURVE_NOISE_WITHIN, CURVE_NOISE_BEYOND };
/*
 * Two runs' knees differ beyond noise when their intervals (curve_knee_interval)
 * do not overlap; unknown unless both have one.
 */
enum curve_noise curve_compare_noise(const struct knee *ka, const struct curve_repeats *ra,
                                     const struct knee *kb, const struct curve_repeats *rb);
/*
 * A client-bound point (disturbed after its retries) above the knee's step and below
 * the first violation: the knee may lie higher and is a lower bound. Returns the
 * lowest such offered rate (0: none) and in *measured the highest open-loop rate
 * below it whose client was not disturbed (0: none), what this client could measure.
 */
double curve_client_bound(const struct knee *k, const struct step_point *sorted, size_t n,
                          double *measured);
/* Failed operations of pts[0..n), and the first point whose window has an errno (or NULL). */
uint64_t curve_errors(const struct step_point *pts, size_t n, const struct step_point **first);
/* "EIO on /dev/loop0", or "N failed operations" when no errno is known (p NULL). */
void curve_error_words(const struct step_point *p, uint64_t errors, char *buf, size_t len);

#endif
