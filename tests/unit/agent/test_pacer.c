/* SPDX-License-Identifier: MIT */
/* The pacer's rules: the margin before a due time, and the spin budget's cap on it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "clock.h"
#include "engine.h"
#include "pacer.h"

#define T0 (1000 * NSEC_PER_SEC)

/* Before calibration: sleep to the start margin before the due time, spin inside it. */
static void test_margin(void **state)
{
	struct pacer p;

	(void)state;
	pacer_init(&p, PACER_PRECISE, 0, 0);
	assert_int_equal(pacer_margin(&p), PACER_MARGIN_START_NS);
	assert_int_equal(pacer_wait(&p, T0, T0 + 300000, true), 300000 - PACER_MARGIN_START_NS);
	assert_int_equal(pacer_wait(&p, T0, T0 + 110000, true), ENGINE_NO_WAIT);
	/* not an operation's due time (an interval's end): no margin */
	assert_int_equal(pacer_wait(&p, T0, T0 + 110000, false), 110000);
	/* efficient: to the due time itself */
	pacer_init(&p, PACER_EFFICIENT, 0, 0);
	assert_int_equal(pacer_wait(&p, T0, T0 + 300000, true), 300000);
}

/*
 * Spinning through a window while preempted: the cap shrinks by a quarter, to zero
 * after enough windows (then the worker sleeps to the due time); a window without
 * preemption, or without much spinning, lets it grow back by an eighth.
 */
static void test_spin_budget(void **state)
{
	const uint64_t w = PACER_WINDOW_NS;
	struct pacer p;
	int n = 0;

	(void)state;
	pacer_init(&p, PACER_PRECISE, 0, 0);
	pacer_window(&p, w, w / 2, 50);
	assert_int_equal(pacer_margin(&p), PACER_MARGIN_MAX_NS * 3 / 4);
	assert_int_equal(pacer_wait(&p, T0, T0 + 300000, true),
	                 300000 - PACER_MARGIN_MAX_NS * 3 / 4);
	while (pacer_margin(&p) > 0 && n++ < 100)
		pacer_window(&p, w, w / 2, 50);
	assert_true(n < 30);
	assert_int_equal(pacer_wait(&p, T0, T0 + 300000, true), 300000);
	assert_int_equal(pacer_wait(&p, T0, T0 + 25000, true), 25000); /* over the shortest sleep */
	/* preempted, but hardly spinning: not the spin's fault */
	pacer_window(&p, w, w / 100, 50);
	assert_int_equal(pacer_margin(&p), PACER_MARGIN_MAX_NS / 8);
	/* spinning alone on the core: back to the full margin */
	for (int i = 0; i < 8; i++)
		pacer_window(&p, w, w, PACER_PREEMPTIONS - 1);
	assert_int_equal(pacer_margin(&p), PACER_MARGIN_START_NS);
}

/* Calibrate p's margin to a wake-up lateness of late_ns on every timed sleep. */
static void tp_calibrate(struct pacer *p, uint64_t late_ns)
{
	uint64_t now = T0;

	for (int i = 0; i < PACER_SAMPLES; i++) {
		uint64_t wait = pacer_wait(p, now, now + NSEC_PER_MSEC, false);

		now += wait + late_ns;
		pacer_woke(p, now, true);
	}
}

/*
 * The lateness budget: an operation may go out budget after its due time, so the
 * worker sleeps to budget - margin past it and spins only where the budget is
 * tighter than a wake-up's lateness. Counted from the pacer's own decisions.
 */
static void test_budget(void **state)
{
	const uint64_t late = 8000, margin = late + late / 4 + PACER_MARGIN_MIN_NS;
	struct pacer none, b20;
	uint64_t now = T0;

	(void)state;
	pacer_init(&none, PACER_PRECISE, 0, 0);
	pacer_init(&b20, PACER_PRECISE, 0, 20000);
	/* Before calibration the start margin exceeds the budget: wake before the due time. */
	assert_int_equal(pacer_wait(&b20, T0, T0 + 300000, true),
	                 300000 + 20000 - PACER_MARGIN_START_NS);
	tp_calibrate(&none, late);
	tp_calibrate(&b20, late);
	assert_int_equal(pacer_margin(&b20), margin);
	/* A wake-up late by the margin still lands within the budget: after the due time. */
	assert_int_equal(pacer_wait(&b20, T0, T0 + 50000, true), 50000 + 20000 - margin);
	assert_int_equal(pacer_wait(&none, T0, T0 + 50000, true), 50000 - margin);
	/* Operations 30 us apart: without a budget each one is spun to; with it, slept to. */
	none.spins = none.sleeps = b20.spins = b20.sleeps = 0;
	for (int i = 0; i < 100; i++, now += 30000) {
		assert_true(pacer_wait(&none, now, now + 30000, true) == ENGINE_NO_WAIT);
		assert_true(pacer_wait(&b20, now, now + 30000, true) != ENGINE_NO_WAIT);
	}
	assert_int_equal(none.spins, 100);
	assert_int_equal(none.sleeps, 0);
	assert_int_equal(b20.spins, 0);
	assert_int_equal(b20.sleeps, 100);
	/* Due already: go at once, budget or not. */
	assert_int_equal(pacer_wait(&b20, T0, T0, true), ENGINE_NO_WAIT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_margin),
	    cmocka_unit_test(test_spin_budget),
	    cmocka_unit_test(test_budget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
