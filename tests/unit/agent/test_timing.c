/* SPDX-License-Identifier: MIT */
/*
 * Worker timing on the sim engine: M/M/c against Erlang C, nothing dropped at a
 * step's end, the fleet's phase. How late and at what CPU a worker issues are
 * figures of the machine it runs on, printed by tools/bench-pacer and
 * tools/bench-latency; the pacer's rule is tested in test_pacer.c.
 */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "clock.h"
#include "hist.h"
#include "worker_rig.h"
#include "xalloc.h"

/* Mean time in an M/M/c system (Erlang C): wait in queue plus service. */
static double tt_erlang_c(unsigned c, double lambda, double mu)
{
	double a = lambda / mu, rho = a / c, term = 1, sum = 0, top, pw;

	for (unsigned k = 0; k < c; k++) {
		sum += term;
		term *= a / (k + 1);
	}
	top = term / (1 - rho); /* a^c / c! / (1 - rho) */
	pw = top / (sum + top);
	return pw / (c * mu - lambda) + 1 / mu;
}

/*
 * M/M/c: Poisson arrivals, c servers with exponential service. With 64 servers
 * the sample mean of a few seconds is within ~2% (checked by simulation), so 5%
 * is a test of the engine and the worker, not of luck; the seeds are fixed too.
 *
 * A client that stalls issues what fell due in one burst, and at 80-90% the device
 * queues it: that run measures the client, not the engine. So, as a campaign's
 * retry: N does, a case whose worker was disturbed by the product's rules
 * (docs/methodology.md "A disturbed client": its own delay averaging over 10% of
 * the latency judged, or a client that stalled all through: with each interval in
 * which it delayed an operation by over 1 ms set aside, and the one after it, fewer
 * than two intervals left) runs again, up to TT_ATTEMPTS times; a case disturbed
 * every time is printed, not judged. (Beside two busy loops and a build, a 90% case
 * whose mean lag was 835 us, just under 10%, had 20% of its operations delayed over
 * 1 ms in almost every interval and measured 21% over Erlang C.)
 */
#define TT_ATTEMPTS 3

static void test_mmc(void **state)
{
	static const struct {
		double rho;
		uint32_t seconds;
	} cases[] = {{0.5, 2}, {0.8, 3}, {0.9, 6}};
	const struct engine_sim_params sim = {
	    .servers = 64, .service_ns = 8 * NSEC_PER_MSEC, .exponential = true};
	const double mu = 1e9 / (double)sim.service_ns;
	struct wt_rig *r = wt_rig_new(1);
	struct shm_interval *iv = xcalloc(16, sizeof(*iv));
	struct hist *lat = xmalloc(sizeof(*lat));

	(void)state;
	wt_fork(r, 0, &(struct wt_worker_opts){.sim = &sim, .queue_depth = 1024, .poisson = true});
	wt_ready(r, 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double rate = cases[i].rho * sim.servers * mu, want, got = 0;
		uint32_t n = 2 * cases[i].seconds + 1; /* half-second intervals, one of warm-up */
		bool disturbed = true;

		want = tt_erlang_c(sim.servers, rate, mu) * 1e9;
		for (unsigned attempt = 1; attempt <= TT_ATTEMPTS && disturbed; attempt++) {
			uint64_t gen, lag = 0, ops = 0, stalled = 0;
			uint32_t left = 0;
			double lag_mean;

			hist_reset(lat);
			gen = wt_step(r, 500 * NSEC_PER_MSEC, n, &rate);
			wt_collect(r, 0, gen, n, iv);
			for (uint32_t k = 1; k < n; k++) {
				hist_merge(lat, &iv[k].rec.latency);
				lag += iv[k].rec.lag_sum_ns;
				ops += iv[k].rec.ops;
				stalled += iv[k].rec.late_1ms;
				/* not a stall itself, nor the interval its burst drains into */
				left += iv[k].rec.late_1ms == 0 &&
				        (k == 1 || iv[k - 1].rec.late_1ms == 0);
			}
			/*
			 * The model is the device: latency less the client's own lateness (on a
			 * busy host a worker wakes late, and that is the client's, reported as
			 * lag).
			 */
			lag_mean = ops ? (double)lag / (double)ops : 0;
			got = hist_mean(lat) - lag_mean;
			disturbed = lag_mean > 0.10 * want || left < 2;
			print_message(
			    "M/M/%u at %.0f%% (attempt %u): %.0f ops/s, mean %.1f us less lag "
			    "%.1f us = %.1f us, Erlang C %.1f us (%+.2f%%); %" PRIu64
			    " ops delayed by the client over 1 ms, %u of %u intervals clear\n",
			    sim.servers, cases[i].rho * 100, attempt, rate, hist_mean(lat) / 1e3,
			    lag_mean / 1e3, got / 1e3, want / 1e3, (got / want - 1) * 100, stalled,
			    left, n - 1);
		}
		if (disturbed) {
			print_message(
			    "M/M/%u at %.0f%%: the client was disturbed in all %u attempts: "
			    "not judged\n",
			    sim.servers, cases[i].rho * 100, TT_ATTEMPTS);
			continue;
		}
		if (fabs(got / want - 1) > 0.05)
			fail_msg("M/M/%u at %.0f%%: mean %.1f us is not within 5%% of %.1f us",
			         sim.servers, cases[i].rho * 100, got / 1e3, want / 1e3);
	}
	free(lat);
	free(iv);
	wt_rig_free(r);
}

/*
 * Overload: 100 ops/s offered to a device of 1 / 30 ms with 4 slots. At the
 * step's end what is in flight is waited for and counted, what was never issued
 * is `missed` and charged as a latency lower bound; every interval carries its
 * backlog. Nothing due in the step is unaccounted for.
 */
static void test_end_counts_everything(void **state)
{
	const struct engine_sim_params sim = {.servers = 1, .service_ns = 30 * NSEC_PER_MSEC};
	struct wt_rig *r = wt_rig_new(1);
	struct shm_interval iv[2];
	double rate = 100;
	uint64_t ops, charged, gen;

	wt_fork(r, 0, &(struct wt_worker_opts){.sim = &sim, .queue_depth = 4});
	wt_ready(r, 0);
	gen = wt_step(r, 200 * NSEC_PER_MSEC, 2, &rate);
	wt_collect(r, 0, gen, 2, iv);
	ops = iv[0].rec.ops + iv[1].rec.ops;
	charged = iv[0].rec.missed_charged + iv[1].rec.missed_charged;
	print_message("ops %" PRIu64 " + %" PRIu64 ", backlog %" PRIu64 " then %" PRIu64
	              ", charged %" PRIu64 "\n",
	              iv[0].rec.ops, iv[1].rec.ops, iv[0].rec.missed, iv[1].rec.missed, charged);
	/* 40 due: each was completed (the last 4 after the end) or never issued. */
	assert_int_equal(ops + iv[1].rec.missed, 40);
	assert_int_equal(charged, iv[1].rec.missed);
	assert_int_equal(iv[0].rec.missed_charged, 0);
	assert_true(iv[0].rec.missed > 0); /* the backlog at the first boundary */
	assert_true(iv[1].rec.missed > iv[0].rec.missed);
	for (int k = 0; k < 2; k++)
		assert_int_equal(iv[k].rec.latency.count, iv[k].rec.ops + iv[k].rec.missed_charged);
	/* Issued behind 3 others, the last completed ~90 ms after its issue: after the end. */
	assert_true(iv[1].rec.service.max >= 3 * sim.service_ns);
	wt_rig_free(r);
}

/*
 * Coefficient of variation of the gaps between the merged intended times of 4
 * workers; NaN when the workers could not issue what fell due (4 or more left
 * unissued at the step's end: a starved client, whose gaps are its own).
 */
static double tt_merged_cv(bool phased)
{
	const struct engine_sim_params sim = {.servers = 4, .service_ns = 10000};
	char prefix[128], path[160];
	struct wt_rig *r = wt_rig_new(4);
	double rates[4] = {500, 500, 500, 500}, sum = 0, sq = 0, mean;
	struct shm_interval iv[4][2];
	uint64_t *t = xcalloc(4096, sizeof(*t)), gen;
	size_t n = 0, missed = 0;

	snprintf(prefix, sizeof(prefix), "%s/intended-%d", wt_dir, (int)phased);
	setenv(WORKER_TEST_INTENDED_ENV, prefix, 1);
	for (unsigned i = 0; i < 4; i++)
		wt_fork(r, i,
		        &(struct wt_worker_opts){.sim = &sim,
		                                 .phase_index = phased ? i : 0,
		                                 .phase_total = phased ? 4 : 0});
	unsetenv(WORKER_TEST_INTENDED_ENV);
	for (unsigned i = 0; i < 4; i++)
		wt_ready(r, i);
	gen = wt_step(r, 100 * NSEC_PER_MSEC, 2, rates);
	for (unsigned i = 0; i < 4; i++) {
		wt_collect(r, i, gen, 2, iv[i]);
		missed += iv[i][1].rec.missed;
	}
	for (unsigned i = 0; i < 4; i++) {
		FILE *f;
		unsigned long long v;

		snprintf(path, sizeof(path), "%s.%d", prefix, (int)r->pid[i]);
		f = fopen(path, "r");
		assert_non_null(f);
		while (fscanf(f, "%llu", &v) == 1 && n < 4096)
			t[n++] = v;
		fclose(f);
		unlink(path);
	}
	wt_rig_free(r);
	assert_int_equal(n + missed, 400); /* 4 workers x 500 ops/s x 0.2 s */
	if (missed >= 4) {
		free(t);
		return NAN;
	}
	for (size_t i = 0; i < n; i++) /* insertion sort: a few hundred values */
		for (size_t j = i; j > 0 && t[j - 1] > t[j]; j--) {
			uint64_t x = t[j];

			t[j] = t[j - 1];
			t[j - 1] = x;
		}
	for (size_t i = 1; i < n; i++) {
		double g = (double)(t[i] - t[i - 1]);

		sum += g;
		sq += g * g;
	}
	free(t);
	mean = sum / (double)(n - 1);
	return sqrt(sq / (double)(n - 1) - mean * mean) / mean;
}

/* Worker g of G starts g/G of a period late: the merged stream is even, not in bursts. */
static void test_fleet_phase(void **state)
{
	double even = NAN, bursts = NAN;

	(void)state;
	/* a starved attempt runs again, as a disturbed step does (TT_ATTEMPTS) */
	for (unsigned a = 0; a < TT_ATTEMPTS && isnan(even); a++)
		even = tt_merged_cv(true);
	for (unsigned a = 0; a < TT_ATTEMPTS && isnan(bursts); a++)
		bursts = tt_merged_cv(false);
	print_message("merged inter-arrival CV: phased %.3f, all in phase %.3f\n", even, bursts);
	if (isnan(even) || isnan(bursts)) {
		print_message("the workers were starved in all %u attempts: not judged\n",
		              TT_ATTEMPTS);
		return;
	}
	assert_true(even < 0.1);
	assert_true(bursts > 1.0);
}

static int tt_setup(void **state)
{
	snprintf(wt_dir, sizeof(wt_dir), "/tmp/iocurve-test-timing-XXXXXX");
	return mkdtemp(wt_dir) ? 0 : -1;
}

static int tt_teardown(void **state)
{
	return rmdir(wt_dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_end_counts_everything),
	    cmocka_unit_test(test_fleet_phase),
	    cmocka_unit_test(test_mmc),
	};

	return cmocka_run_group_tests(tests, tt_setup, tt_teardown);
}
